"""The learned-attention widget in Chromium, on its own small test site (tests/support/learned_widget_support.py):
the reader's sentences computed as qkv.learning computes them, the address, the messages, a phone's width."""

from __future__ import annotations

import gzip
from urllib.parse import urlsplit

import numpy as np
import pytest
from browser_support import DESKTOP, PHONE, SiteServer
from learned_widget_support import RESULTS, sentences, widget_site

from qkv.learning.rollout import rollout_weights
from qkv_site.builder.learned_models import export, exported_model

READY = ".qkv-learned-widget[data-qkv-ready]"


@pytest.fixture(scope="module")
def widget_server(tmp_path_factory: pytest.TempPathFactory, browser):
    site = widget_site(tmp_path_factory.mktemp("learned-widget"))
    with SiteServer(site, "/") as running:
        running.site = site
        yield running


def open_widget(tab, server: SiteServer, path: str) -> None:
    tab.page.goto("about:blank")
    tab.page.goto(server.url(path))
    tab.page.wait_for_selector(READY)
    tab.page.wait_for_function("document.querySelectorAll('.qkv-learned-widget[data-qkv-ready]').length === 2")


def widget(tab, task: str):
    return tab.page.locator(f'.qkv-learned-widget[data-model="{task}"]')


def shown(tab, task: str) -> dict:
    """What the widget computed (every row) and what it shows ("it"'s rows, the answer), at full precision."""
    return widget(tab, task).evaluate("""(root) => {
      const r = root.qkvWidget.result;
      const cells = [...root.querySelectorAll('td.qkv-lw-heat')].map((td) => [td.dataset.column, Number(td.dataset.value)]);
      const verdict = root.querySelector('.qkv-lw-verdict');
      return { words: r.words, error: r.error ?? null, weights: r.intact?.layers.map((l) => l.weights), rollout: r.rollout,
               cells, word: verdict?.dataset.word, probability: Number(verdict?.dataset.probability),
               status: root.querySelector('.qkv-lw-status').dataset.heldout, message: root.querySelector('.qkv-lw-message').textContent };
    }""")


def test_sentences_typed_into_the_widget_get_qkv_learnings_answer_rows_and_rollout(tabs, widget_server) -> None:
    models = {task: exported_model(export(RESULTS, task)) for task in ("coreference", "referent")}
    largest = 0.0
    with tabs.open(widget_server, viewport=DESKTOP) as tab:
        open_widget(tab, widget_server, "/en/widget/")
        typed = sentences()
        assert len(typed) >= 20 and any(status not in ("train", "other") for _, _, status in typed)
        for task, sentence, status in typed:
            box = widget(tab, task).locator("input.qkv-lw-text")
            box.fill("")
            box.press_sequentially(sentence.lower(), delay=0) if len(sentence) < 40 else box.fill(sentence)
            got = shown(tab, task)
            model = models[task]
            weights = model.attention(sentence)
            rollout = rollout_weights(weights)
            p = model.probabilities(sentence)
            assert got["error"] is None and got["words"] == model.tokens(sentence), sentence
            assert got["status"] == status, sentence
            assert got["word"] == model.resolve(sentence), sentence
            differences = [np.abs(np.array(got["weights"]) - weights).max(), np.abs(np.array(got["rollout"]) - rollout).max(),
                           abs(got["probability"] - p[got["word"]])]
            it = got["words"].index("it")
            for column, values in (("1", weights[0, it]), ("2", weights[1, it]), ("rollout", rollout[-1, it])):
                differences.append(np.abs(np.array([v for c, v in got["cells"] if c == column]) - values).max())
            largest = max(largest, *differences)
            assert max(differences) <= 1e-9, (sentence, differences)
    print(f"largest difference from numpy over {len(typed)} sentences: {largest:.2e}")


def test_a_shared_link_restores_the_sentence_and_the_removed_edge(tabs, widget_server) -> None:
    sentence = "the dog didn't cross the road because it was too muddy"
    with tabs.open(widget_server, viewport=DESKTOP) as tab:
        open_widget(tab, widget_server, "/widget/?coreference=" + sentence.replace(" ", "+") + "&coreference-cut=5&coreference-layers=2")
        root = widget(tab, "coreference")
        assert root.locator("input.qkv-lw-text").input_value() == sentence
        assert root.locator("input[type=checkbox]").is_checked()
        assert root.locator("td.qkv-lw-removed").count() == 1  # layer 2's cell of "road"
        after = root.locator(".qkv-lw-after")
        model = exported_model(export(RESULTS, "coreference"))
        from qkv.learning.ablation import _remove

        def edit(layer, w):
            return _remove(w, np.array([7]), np.array([5])) if layer == 2 else w
        fwd = model.forward(model.batch([sentence]), edit=edit)
        assert abs(float(after.get_attribute("data-probability")) - fwd.probabilities[0].max()) <= 1e-9
        # the reader picks another animal with the keyboard: the address follows, the edge is put back
        root.locator("select[data-slot=animal]").focus()
        tab.page.keyboard.press("ArrowDown")
        query = urlsplit(tab.page.url).query
        assert "coreference=the+cat+didn%27t+cross" in query and "coreference-cut" not in query, query
        assert root.locator(".qkv-lw-after").count() == 0


def test_words_the_model_does_not_know_are_named_and_nothing_is_computed(tabs, widget_server) -> None:
    with tabs.open(widget_server, viewport=DESKTOP) as tab:
        open_widget(tab, widget_server, "/widget/")
        box = widget(tab, "referent").locator("input.qkv-lw-text")
        box.fill("the piano didn't cross the street because it was too purple")
        got = shown(tab, "referent")
        assert got["error"] == "unknown" and "“piano”" in got["message"] and "“purple”" in got["message"], got["message"]
        assert widget(tab, "referent").locator("table").count() == 0
        assert box.get_attribute("aria-invalid") == "true"


def test_the_widget_fits_a_phone_and_the_page_weight_is_measured(browser, widget_server) -> None:
    from browser_support import LocalOnly

    with LocalOnly(browser, widget_server, viewport=PHONE) as tab:
        responses = []
        tab.page.on("response", lambda r: responses.append((r.url, r.status)))
        open_widget(tab, widget_server, "/en/widget/")
        # nothing of the widget reaches past the screen's edge (the words' table scrolls in its own box)
        wide = tab.page.evaluate("""(width) => [...document.querySelectorAll('.qkv-lw, .qkv-lw *')]
          .filter((e) => !e.closest('.qkv-lw-table table') && e.getBoundingClientRect().right > width)
          .map((e) => e.tagName + '.' + e.className)""", PHONE["width"])
        assert wide == []
        # (the test site's Material language menu asks for a sitemap it does not have: not the widget's)
        assert tab.foreign == [] and [url for url, status in responses if status >= 400 and "learned" in url] == []
        files = {urlsplit(url).path for url, status in responses if status < 400}
        weight = sum(len(gzip.compress((widget_server.site / (p.lstrip("/") + ("index.html" if p.endswith("/") else ""))).read_bytes(), 9))
                     for p in files)
        ours = sum(len(gzip.compress((widget_server.site / p.lstrip("/")).read_bytes(), 9)) for p in files
                   if "learned" in p)
        print(f"test page: {len(files)} files, {weight / 1000:.1f} KB gzip; the widget's own: {ours / 1000:.1f} KB gzip")
        assert ours <= 100_000
