"""Social cards: every page names a 1200×630 PNG of its own as og:image, drawn at build time."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from PIL import Image
from repository import LANGUAGES, SITE_URL
from site_pages import built_page, nav_sources

from qkv_site.builder import social_card

PAGES = [(source, lang) for lang in LANGUAGES for source in nav_sources()]


def meta(soup: BeautifulSoup, key: str) -> str | None:
    tag = soup.find("meta", attrs={"property": key}) or soup.find("meta", attrs={"name": key})
    return tag.get("content") if tag else None


@pytest.fixture(scope="module")
def cards(site: Path) -> dict[tuple[str, str], dict[str, str | None]]:
    """The og:/twitter: tags of every page of the nav, by (source, language)."""
    keys = ("og:image", "og:image:width", "og:image:height", "og:title", "og:description", "og:url",
            "twitter:card", "twitter:image", "twitter:title")
    found = {}
    for source, lang in PAGES:
        soup = built_page(site, source, lang)
        found[source, lang] = {key: meta(soup, key) for key in keys} | {"h1": soup.find("title").get_text()}
    return found


@pytest.mark.parametrize(("source", "lang"), PAGES)
def test_every_page_has_a_social_card_that_exists(site: Path, cards, source: str, lang: str) -> None:
    tags = cards[source, lang]
    image = tags["og:image"]
    assert image and image.startswith(SITE_URL), f"{lang}/{source}: og:image {image!r} is not an absolute URL of the site"
    assert tags["twitter:image"] == image and tags["twitter:card"] == "summary_large_image"
    path = site / image.removeprefix(SITE_URL)
    assert path.is_file(), f"{lang}/{source}: {image} is not in the built site"
    with Image.open(path) as png:
        assert (png.format, png.size) == ("PNG", (social_card.WIDTH, social_card.HEIGHT))
    assert (tags["og:image:width"], tags["og:image:height"]) == ("1200", "630")
    assert tags["og:title"] and tags["og:description"]
    assert tags["og:url"] and tags["og:url"].startswith(SITE_URL)


def test_each_page_and_language_has_its_own_card(cards) -> None:
    images = [tags["og:image"] for tags in cards.values()]
    assert len(set(images)) == len(images), "two pages share a card"
    zh, en = cards["worked-example.md", "zh"], cards["worked-example.md", "en"]
    assert zh["og:title"] == "逐步计算：一个完整的例子" and en["og:title"] == "Step by step: a complete example"


def test_the_home_page_card_carries_the_article_title(cards) -> None:
    assert cards["index.md", "zh"]["og:title"].startswith("Transformer 原理（二）")
    assert cards["index.md", "en"]["og:title"].startswith("How Transformers work (2)")


def test_a_card_is_drawn_once_and_then_read_from_the_cache(tmp_path, monkeypatch) -> None:
    name, first = social_card.card("缩放因子为什么是 √dₖ？", "Self-Attention 深度拆解", tmp_path)
    assert (tmp_path / name).read_bytes() == first
    with Image.open(io.BytesIO(first)) as png:
        assert png.size == (1200, 630)
    monkeypatch.setattr(social_card, "draw_card", lambda *args: pytest.fail("drawn again despite the cache"))
    assert social_card.card("缩放因子为什么是 √dₖ？", "Self-Attention 深度拆解", tmp_path) == (name, first)
    assert social_card.card_name("another title", "Self-Attention 深度拆解") != name


def test_a_title_the_font_cannot_draw_fails() -> None:
    with pytest.raises(ValueError, match="missing"):
        social_card.draw_card("Q \ue000", "Self-Attention")


def test_a_title_too_long_for_the_card_fails() -> None:
    with pytest.raises(ValueError, match="does not fit"):
        social_card.draw_card("注意力" * 60, "Self-Attention")
