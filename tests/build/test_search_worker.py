"""Material's search worker on small indexes of the shape the build writes, run under node: what its corrections
(qkv_site.builder.compat.WORKER_CORRECTIONS) change in its results, and what the index relies on (WORKER_READS)."""

from __future__ import annotations

from search_worker_support import run_worker

SEPARATOR = r"[\s\u200b\-、。，？：（）,:?()]+"


def index(docs: list[dict], lang: list[str], pipeline: list[str]) -> dict:
    fields = {"title": {"boost": 1000.0}, "text": {"boost": 1.0}, "names": {"boost": 1000.0}}
    return {"config": {"lang": lang, "separator": SEPARATOR, "pipeline": pipeline, "fields": fields}, "docs": docs}


CHINESE = index([
    {"location": "a/", "title": "缩放<wbr/>因子", "text": "<p>为什么<wbr/>除以<wbr/>根号</p>"},
    {"location": "a/#x", "title": "方差", "text": "<p>点积<wbr/>的<wbr/>方差<wbr/>是 n²</p>"},
    {"location": "b/", "title": "交叉<wbr/>注意力", "text": "<p>一个<wbr/>数值<wbr/>例子</p>"},
    {"location": "c/", "title": "个数", "text": "<p>一</p>", "names": "值"},
    {"location": "d/", "title": "为什么要<wbr/>这样", "text": ""},
], ["zh", "en"], [])
ENGLISH = index([
    {"location": "a/", "title": "Hands-on", "text": "<p>the five steps</p>"},
    {"location": "b/", "title": "Multiply", "text": "<p>multiply by V</p>"},
    {"location": "c/", "title": "Heads", "text": "<p>multi head attention</p>"},
], ["en"], ["stopWordFilter"])


def items(groups: list[list[dict]]) -> dict[str, dict]:
    return {item["location"]: item for group in groups for item in group}


def test_a_chinese_query_is_its_words_none_listed_as_missing_where_found(tmp_path) -> None:
    why, variance = run_worker(tmp_path, CHINESE, ["为什么除以", "n² 方差"])
    assert items(why)["a/"]["terms"] == {"为什么": True, "除以": True}  # not 为什么* (then missing, struck through)
    assert "d/" not in items(why)  # a word before the last is searched whole, as in “why divide”: not as the start of 为什么要
    # the Chinese index's two languages brought a trimmer that indexed n² as n: the query's n² never matched it
    assert items(variance)["a/#x"]["terms"] == {"n²": True, "方差": True}


def test_no_one_character_piece_of_a_query_is_searched(tmp_path) -> None:
    (example,) = run_worker(tmp_path, CHINESE, ["一个数值例子"])
    # 个数 and 值 are words of the index too, and 一 the start of 一个: none is searched on its own
    assert set(items(example)) == {"b/"}, items(example)
    assert items(example)["b/"]["terms"] == {"一个": True, "数值": True, "例子": True}


def test_a_word_break_splits_words_and_is_shown_as_it_is(tmp_path) -> None:
    (attention,) = run_worker(tmp_path, CHINESE, ["注意力"])
    assert items(attention)["b/"]["title"] == "交叉<wbr/><mark>注意力</mark>"


def test_a_page_listed_for_its_section_links_with_the_sections_words(tmp_path) -> None:
    (variance,) = run_worker(tmp_path, CHINESE, ["点积"])
    page = items(variance)["a/"]
    assert page["terms"] == {"点积": True}, page  # Material gave it {}: a link with an empty ?h=


def test_only_the_last_word_is_a_prefix_and_a_hyphen_or_colon_separates_words(tmp_path) -> None:
    multi, hands = run_worker(tmp_path, ENGLISH, ["multi head", "Hands-on: the five"])
    assert set(items(multi)) == {"c/"}, items(multi)  # multi* also found Multiply
    assert "a/" in items(hands)  # lunr's lexer read “on:” as a field: the query failed
