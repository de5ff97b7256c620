"""The learned-attention widgets in Chromium, on the article's learned-attention page of the session's build: the
reader's sentences computed as qkv.learning computes them, the address, the messages, a phone's width; the first
state drawn from the page's numbers, the model fetched only when the reader first uses the widget."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import numpy as np
import pytest
from browser_support import DESKTOP, PHONE, TIMEOUT_MS, SiteServer
from learned_widget_support import RESULTS, sentences
from site_pages import page_url

from qkv.learning.rollout import rollout_weights
from qkv_site.builder.learned_models import export, exported_model
from qkv_site.tools.page_weight import site_files

READY = ".qkv-learned-widget[data-qkv-ready]"


# The page with both widgets, in each language (a site path, as SiteServer.url takes it).
WIDGET_PAGE = {lang: page_url("learned-attention.md", lang) for lang in ("zh", "en")}


def is_widget_file(path: str) -> bool:
    """Whether a file of the site (its path in the site) is the widgets' own: their scripts, their stylesheet, a model."""
    return path.startswith(("assets/javascripts/learned/", "assets/stylesheets/learned.css")) or \
        path.rsplit("/", 1)[-1].startswith("learned-model-")


def open_widget(tab, server: SiteServer, path: str) -> None:
    tab.page.goto("about:blank")
    tab.page.goto(server.url(path))
    tab.page.wait_for_selector(READY)
    tab.page.wait_for_function("document.querySelectorAll('.qkv-learned-widget[data-qkv-ready]').length === 2")


def widget(tab, task: str):
    return tab.page.locator(f'.qkv-learned-widget[data-model="{task}"]')


def with_model(tab, task: str) -> None:
    """Wait until the widget has its model and has applied what the reader did meanwhile."""
    tab.page.wait_for_function("(root) => root.qkvWidget.model && !root.hasAttribute('aria-busy')",
                               arg=widget(tab, task).element_handle())


def shown(tab, task: str) -> dict:
    """What the widget computed (every row) and what it shows ("it"'s rows, the answer), at full precision."""
    with_model(tab, task)
    return widget(tab, task).evaluate("""(root) => {
      const r = root.qkvWidget.result;
      const cells = [...root.querySelectorAll('td.qkv-lw-heat')].map((td) => [td.dataset.column, Number(td.dataset.value)]);
      const verdict = root.querySelector('.qkv-lw-verdict');
      return { words: r.words, error: r.error ?? null, weights: r.intact?.layers.map((l) => l.weights), rollout: r.rollout,
               cells, word: verdict?.dataset.word, probability: Number(verdict?.dataset.probability),
               status: root.querySelector('.qkv-lw-status').dataset.heldout, message: root.querySelector('.qkv-lw-message').textContent };
    }""")


def test_sentences_typed_into_the_widget_get_qkv_learnings_answer_rows_and_rollout(tabs, server) -> None:
    models = {task: exported_model(export(RESULTS, task)) for task in ("coreference", "referent")}
    largest = 0.0
    with tabs.open(server, viewport=DESKTOP) as tab:
        open_widget(tab, server, WIDGET_PAGE["en"])
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


def test_a_shared_link_restores_the_sentence_and_the_removed_edge(tabs, server) -> None:
    sentence = "the dog didn't cross the road because it was too muddy"
    with tabs.open(server, viewport=DESKTOP) as tab:
        open_widget(tab, server, WIDGET_PAGE["zh"] + "?coreference=" + sentence.replace(" ", "+") + "&coreference-cut=5&coreference-layers=2")
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


def test_words_the_model_does_not_know_are_named_and_nothing_is_computed(tabs, server) -> None:
    with tabs.open(server, viewport=DESKTOP) as tab:
        open_widget(tab, server, WIDGET_PAGE["zh"])
        box = widget(tab, "referent").locator("input.qkv-lw-text")
        box.fill("the piano didn't cross the street because it was too purple")
        got = shown(tab, "referent")
        assert got["error"] == "unknown" and "“piano”" in got["message"] and "“purple”" in got["message"], got["message"]
        assert widget(tab, "referent").locator("table").count() == 0
        assert box.get_attribute("aria-invalid") == "true"


def test_the_widget_fits_a_phone_and_the_page_weight_is_measured(browser, server) -> None:
    from browser_support import LocalOnly

    with LocalOnly(browser, server, viewport=PHONE) as tab:
        responses = []
        tab.page.on("response", lambda r: responses.append((r.url, r.status)))
        open_widget(tab, server, WIDGET_PAGE["en"])
        # nothing of the widget reaches past the screen's edge (the words' table scrolls in its own box)
        wide = tab.page.evaluate("""(width) => [...document.querySelectorAll('.qkv-lw, .qkv-lw *')]
          .filter((e) => !e.closest('.qkv-lw-table table') && e.getBoundingClientRect().right > width)
          .map((e) => e.tagName + '.' + e.className)""", PHONE["width"])
        assert wide == []
        # and for the article's sentences the table fits too, caption and all: its box does not need to scroll
        overflow = tab.page.evaluate("() => [...document.querySelectorAll('.qkv-lw-table')].map((box) => box.scrollWidth - box.clientWidth)")
        assert len(overflow) == 2 and max(overflow) <= 0, f"the words' tables are wider than their boxes by {overflow} px"
        assert tab.foreign == [], f"requests to other hosts: {tab.foreign}"
        assert [url for url, status in responses if status >= 400] == [], responses
        files = site_files(server.directory, {urlsplit(url).path for url, status in responses if status < 400},
                           server.prefix)  # path in the site -> gzip bytes
        ours = sum(size for path, size in files.items() if is_widget_file(path))
        print(f"the page: {len(files)} files, {sum(files.values()) / 1000:.1f} KB gzip; the widgets' own: {ours / 1000:.1f} KB gzip")
        assert 0 < ours <= 100_000, f"the widgets' own files: {ours} bytes gzip"


# The widget as the reader meets it: its HTML, its controls' values and its height. Its numbers (data-value,
# data-probability, the heat's --w) are read apart: numpy's and the browser's last bits may differ.
VIEW_JS = """(root) => ({ html: root.outerHTML, height: root.getBoundingClientRect().height,
  values: [...root.querySelectorAll('select, input')].map((c) => [c.id, c.type === 'checkbox' ? c.checked : c.value]) })"""
NUMBER = re.compile(r'(data-value="|data-probability="|--w: )([-+0-9.e]+)')
SCROLL_JS = """async () => { for (let y = 0; y <= document.body.scrollHeight; y += innerHeight / 3) { scrollTo(0, y);
  await new Promise((resolve) => setTimeout(resolve, 30)); } scrollTo(0, 0); }"""


def model_requests(tab) -> list[str]:
    requests: list[str] = []
    tab.listen("request", lambda request: requests.append(request.url) if "learned-model-" in request.url else None)
    return requests


def assert_same_view(first: dict, drawn: dict, where: str) -> None:
    """The first state is the view the model draws: the same HTML and values, the same numbers to the 9 significant
    digits the page carries (qkv_site.builder.learned_first.DIGITS)."""
    assert NUMBER.sub(r"\1#", first["html"]) == NUMBER.sub(r"\1#", drawn["html"]), where
    ours, theirs = ([float(m[1]) for m in NUMBER.findall(view["html"])] for view in (first, drawn))
    assert len(ours) == len(theirs) > 30 and max(abs(a - b) for a, b in zip(ours, theirs, strict=True)) <= 1e-9, where
    assert first["values"] == drawn["values"] and abs(first["height"] - drawn["height"]) < 0.5, where


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_reader_who_only_scrolls_fetches_no_model_and_sees_what_the_model_draws(tabs, server, lang: str) -> None:
    with tabs.open(server, viewport=DESKTOP) as tab:
        requests = model_requests(tab)
        open_widget(tab, server, WIDGET_PAGE[lang])
        tab.page.evaluate(SCROLL_JS)
        tab.page.mouse.wheel(0, 400)
        tab.page.wait_for_timeout(300)
        assert requests == [], requests
        for task in ("coreference", "referent"):
            root = widget(tab, task)
            first = root.evaluate(VIEW_JS)
            assert root.get_attribute("data-first") is None and root.locator("td.qkv-lw-heat").count() > 30
            root.locator("select").first.focus()  # the keyboard reaches the first control: the model comes
            with_model(tab, task)
            assert any(f"learned-model-{task}.json" in url for url in requests), requests
            tab.page.evaluate("() => document.activeElement.blur()")  # (the focus marks the control it is on)
            assert_same_view(first, root.evaluate(VIEW_JS), f"{lang} {task}: the first state, with nothing done")
            # the model draws the same view again: the first state is exactly what it draws
            root.evaluate("(root) => root.qkvWidget.update({}, { fromText: true, quiet: true })")
            assert_same_view(first, root.evaluate(VIEW_JS), f"{lang} {task}: the first state, drawn by the model")
        assert "coreference=" not in tab.page.url  # nothing the reader chose: the address is the page's


def test_focusing_a_control_fetches_the_model_and_what_was_typed_meanwhile_is_applied(tabs, server) -> None:
    sentence = "the cat didn't cross the road because it was too tired"
    held: list = []
    with tabs.open(server, viewport=DESKTOP) as tab:
        requests = model_requests(tab)
        tab.page.route("**/learned-model-coreference.json", lambda route: held.append(route))  # the model arrives when the test lets it
        open_widget(tab, server, WIDGET_PAGE["en"])
        root = widget(tab, "coreference")
        box = root.locator("input.qkv-lw-text")
        box.focus()
        tab.page.wait_for_function("() => document.querySelector('.qkv-learned-widget[data-model=coreference]').ariaBusy === 'true'")
        assert box.get_attribute("aria-busy") == "true" and root.locator("select[aria-busy=true]").count() >= 4
        assert widget(tab, "referent").get_attribute("aria-busy") is None and not any("referent" in url for url in requests)
        box.fill(sentence)
        assert len(held) == 1 and root.locator(".qkv-lw-verdict").get_attribute("data-word") == "animal"
        held[0].continue_()
        got = shown(tab, "coreference")
        model = exported_model(export(RESULTS, "coreference"))
        weights = model.attention(sentence)
        assert got["words"] == model.tokens(sentence) and got["word"] == model.resolve(sentence)
        assert np.abs(np.array(got["weights"]) - weights).max() <= 1e-9
        assert "coreference=the+cat+didn%27t" in urlsplit(tab.page.url).query
        assert box.get_attribute("aria-busy") is None
        # and then as before: the keyboard picks another place, the table follows at once
        root.locator("select[data-slot=place]").focus()
        tab.page.keyboard.press("ArrowDown")
        chosen = box.input_value()
        assert chosen != sentence and shown(tab, "coreference")["words"] == model.tokens(chosen)


def test_a_model_that_cannot_be_fetched_is_said_so_in_the_widget(tabs, server) -> None:
    with tabs.open(server, viewport=DESKTOP) as tab:
        tab.page.route("**/learned-model-referent.json", lambda route: route.fulfill(status=404, body="gone"))
        open_widget(tab, server, WIDGET_PAGE["zh"])
        root = widget(tab, "referent")
        root.locator("input.qkv-lw-text").focus()
        message = root.locator(".qkv-lw-message")
        message.wait_for(state="visible")
        assert message.text_content() == "模型没能载入。" and root.get_attribute("aria-busy") is None
        assert root.locator(".qkv-lw-verdict").count() == 1  # the first state stays


def test_the_widget_is_drawn_once_its_stylesheet_is_in(tabs, server) -> None:
    held: list = []
    with tabs.open(server, viewport=PHONE) as tab:
        tab.page.route("**/learned.css", lambda route: held.append(route))  # the stylesheet arrives when the test lets it
        tab.page.goto(server.url(WIDGET_PAGE["en"]))
        for _ in range(TIMEOUT_MS // 10):  # until the stylesheet's request has reached the route (Playwright hands it over between calls)
            if held:
                break
            tab.page.wait_for_timeout(10)
        assert len(held) == 1 and tab.page.locator(".qkv-learned-widget select").count() == 0  # nothing drawn unstyled
        held[0].continue_()
        tab.page.wait_for_function("document.querySelectorAll('.qkv-learned-widget[data-qkv-ready]').length === 2")
        overflow = tab.page.evaluate("() => [...document.querySelectorAll('.qkv-lw-table')].map((box) => box.scrollWidth - box.clientWidth)")
        assert max(overflow) <= 0, overflow
