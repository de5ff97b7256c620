"""The header links to the repository the deploy environment names (REPO_URL), without asking its API,
and every figure's caption links to the code that drew it, on the page itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from repository import REPO_NAME, REPO_URL, ROOT
from site_pages import built_page, nav_sources


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("source", nav_sources())
def test_the_header_links_to_the_repository_without_asking_its_api(site: Path, source: str, lang: str) -> None:
    soup = built_page(site, source, lang)
    links = soup.select("a.md-source")
    assert links and all(link["href"] == REPO_URL for link in links)
    assert all(link.get_text(" ", strip=True) == REPO_NAME for link in links)
    # With data-md-component="source" Material's JavaScript fetches api.github.com on the first visit.
    assert not soup.select('[data-md-component="source"]')


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_figure_caption_links_to_the_code_that_drew_it(site: Path, lang: str) -> None:
    pages = [built_page(site, source, lang) for source in nav_sources()]
    captions = [(soup, caption) for soup in pages for caption in soup.select("figure figcaption")]
    assert len(captions) >= 11
    for soup, caption in captions:
        [link] = caption.select("a.figure-source")
        assert link["href"].startswith("#figure-code-"), link["href"]
        block = soup.find(id=link["href"][1:])
        assert block is not None and block.name == "details" and "example" in block["class"], link["href"]
        # The module named by the figure's file, as it is in the repository, shown whole.
        name = caption.find_parent("figure").select_one("img")["src"].rsplit("/", 1)[1].split(".")[0]
        module = ROOT / "src" / "qkv_site" / "figures" / f"{name}.py"
        assert block.select_one("summary code").get_text() == module.name
        label = {"zh": "绘图代码：", "en": "Figure code: "}[lang]  # each language's own punctuation
        assert block.select_one("summary").get_text() == label + module.name
        assert block.select_one("pre code").get_text().strip() == module.read_text(encoding="utf-8").strip()
        [repository] = [a for a in block.select("a[href]") if a["href"].startswith(REPO_URL)]
        assert repository["href"] == f"{REPO_URL}/blob/main/src/qkv_site/figures/{module.name}"


def test_the_figure_code_is_not_in_the_search_index(site: Path) -> None:
    module = (ROOT / "src" / "qkv_site" / "figures" / "worked_weights.py").read_text(encoding="utf-8")
    docstring = module.split('"""')[1]
    for index in (site / "search" / "search_index.json", site / "en" / "search" / "search_index.json"):
        text = index.read_text(encoding="utf-8")
        assert "worked_weights.py" not in text and docstring not in text and "draw_weights" not in text, index
