"""Every page links to the repository, and reading a page asks no other host for anything."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from mkdocs.config import load_config

from conftest import ROOT
from site_pages import built_path, nav_sources


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("source", nav_sources())
def test_the_header_links_to_the_repository_without_asking_its_api(site: Path, source: str, lang: str) -> None:
    repo_url = load_config(str(ROOT / "mkdocs.yml"))["repo_url"]
    soup = BeautifulSoup(built_path(site, source, lang).read_text(encoding="utf-8"), "html.parser")
    links = soup.select("a.md-source")
    assert links and all(link["href"] == repo_url for link in links)
    # With data-md-component="source" Material's JavaScript fetches api.github.com on the first visit.
    assert not soup.select('[data-md-component="source"]')


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_figure_caption_links_to_the_code_that_drew_it(site: Path, lang: str) -> None:
    repo_url = load_config(str(ROOT / "mkdocs.yml"))["repo_url"]
    captions = [
        caption
        for source in nav_sources()
        for caption in BeautifulSoup(built_path(site, source, lang).read_text(encoding="utf-8"), "html.parser").select("figure figcaption")
    ]
    assert len(captions) >= 11
    for caption in captions:
        [link] = caption.select("a.figure-source")
        prefix = f"{repo_url}/blob/main/"
        assert link["href"].startswith(prefix + "src/qkv_site/figures/"), link["href"]
        assert (ROOT / link["href"].removeprefix(prefix)).is_file(), link["href"]
