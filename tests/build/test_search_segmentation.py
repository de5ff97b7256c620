"""Chinese words in search: jieba's user dictionary from the site's terms (qkv_site.search.words), and
the browser's cutting of a query into the index's words (Material's worker as qkv_site.search.material_worker
corrects it, with the corrections and their check in qkv_site.builder.compat)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import jieba
import pytest

from qkv_site import glossary
from qkv_site.builder import compat
from qkv_site.formulas.engine import NODE
from qkv_site.search import material_worker as material_search
from qkv_site.search import words as search_words


def test_a_term_is_kept_whole_unless_it_is_made_of_other_terms() -> None:
    kept = search_words.words_to_keep_whole()
    # jieba would break a character off: 自 / 注意力, 子 / 空间, 多 / 查询 / 注意力
    assert {"自注意力", "子空间", "多查询注意力"} <= set(kept), kept
    # jieba would cut it into two words, neither a term of its own
    assert "交叉注意力" in kept, kept
    # 因果掩码 is 因果 + 掩码, and a reader searching 掩码 must find it; the others hold 归一化, 查询
    assert not {"因果掩码", "归一化指数函数", "分组查询注意力"} & set(kept), kept


def test_the_user_dictionary_keeps_every_site_term_whole_or_in_words(tmp_path) -> None:
    path = tmp_path / "user-dict.txt"
    words = search_words.write_user_dictionary(path)
    assert path.read_text(encoding="utf-8").split() == words
    tokenizer = jieba.Tokenizer()
    tokenizer.load_userdict(str(path))
    for word in words:
        assert list(tokenizer.cut(word)) == [word], f"with the user dictionary jieba still cuts {word!r}: {list(tokenizer.cut(word))}"
    for term in search_words.site_terms():
        pieces = list(tokenizer.cut(term))
        assert len(term) == 1 or all(len(piece) > 1 for piece in pieces), f"jieba cuts the site's term {term!r} into {pieces}"


def test_a_search_word_is_chinese_characters_only(monkeypatch) -> None:
    monkeypatch.setattr(search_words, "SEARCH_WORDS", (*glossary.SEARCH_WORDS, "KV 缓存"))
    with pytest.raises(ValueError, match="'KV 缓存'"):
        search_words.site_terms()


def test_the_build_makes_the_user_dictionary_again_only_when_its_code_or_jieba_changes(tmp_path, monkeypatch) -> None:
    from types import SimpleNamespace

    from qkv_site.search import index as search_index

    made: list[Path] = []
    write = search_index.write_user_dictionary

    def write_and_count(path: Path) -> list[str]:
        made.append(path)
        return write(path)

    monkeypatch.setattr(search_index, "write_user_dictionary", write_and_count)
    words = search_words.words_to_keep_whole()

    def configure(code: str, jieba_version: str = "0.42.1") -> str:
        monkeypatch.setattr(search_index, "process_digest", lambda project: code)
        monkeypatch.setattr("qkv_site.cache_files.version", lambda library: jieba_version)
        search = SimpleNamespace(config=SimpleNamespace(jieba_dict_user=None))
        search_index.configure(SimpleNamespace(plugins={"material/search": search}), tmp_path, project=None)
        dictionary = search.config.jieba_dict_user
        assert Path(dictionary).read_text(encoding="utf-8").split() == words
        assert [folder.name for folder in (tmp_path / "search").iterdir()] == [Path(dictionary).parent.name], "a stale one was kept"
        return dictionary

    first = configure("code a")
    assert configure("code a") == first and len(made) == 1  # a cached build reads it
    second = configure("code b")  # the terms or the rule that picks the words may have changed
    assert second != first and len(made) == 2
    assert configure("code b", jieba_version="0.43") != second and len(made) == 3


def _segment(source: str, query: str, words: list[str]) -> list[str]:
    """Run the worker's own segmenting function (from ``source``) on ``query`` against an index of ``words``."""
    function = compat.SEGMENT_FUNCTION.search(source)
    assert function, "the worker's segmenting function was not found"
    index = json.dumps({word: {} for word in words})  # the inverted index, by word
    script = f"{function[0]}\nconsole.log(JSON.stringify([...{function[1]}({json.dumps(query)}, {index})]))"
    return json.loads(subprocess.run([str(NODE), "-e", script], capture_output=True, text=True, check=True, timeout=60).stdout)


# (query, the words of the index, how the corrected worker cuts the query)
SEGMENTS = [
    ("缩放", ["缩", "缩放", "缩小", "放"], ["缩放"]),
    ("点积", ["点", "点积"], ["点积"]),
    ("复杂度", ["复杂", "复杂度"], ["复杂度"]),
    ("为什么除以", ["为", "为什么", "什么", "除以"], ["为什么", "除以"]),
    ("点积的值", ["点积", "的", "值"], ["点积", "的", "值"]),
    # 个数 overlaps 一个 and 数值: Material tried 一 / 个数 / 值 too, and 一 and 个 as prefixes match every word they begin
    ("一个数值例子", ["一", "一个", "个", "个数", "数值", "值", "例子"], ["一个", "数值", "例子"]),
]


@pytest.mark.parametrize(("query", "words", "expected"), SEGMENTS, ids=[query for query, *_ in SEGMENTS])
def test_the_worker_cuts_a_query_into_the_index_words(query: str, words: list[str], expected: list[str]) -> None:
    original = compat.material_worker().read_text(encoding="utf-8")
    assert sorted(_segment(material_search.corrected(original), query, words)) == sorted(expected)
    assert sorted(_segment(original, query, words)) != sorted(expected), f"Material's own worker already cuts {query!r} right"


def test_the_pinned_worker_holds_what_is_corrected_and_read() -> None:
    compat.check_material()


def test_a_changed_worker_stops_the_build(tmp_path) -> None:
    with pytest.raises(compat.MaterialChanged, match="holds 0 copies"):
        material_search.corrected("function fe(t,e){return t}")
    (tmp_path / compat.MATERIAL_WORKER).parent.mkdir(parents=True)
    (tmp_path / compat.MATERIAL_WORKER).write_text("function fe(t,e){return t}", encoding="utf-8")
    with pytest.raises(compat.MaterialChanged, match=str(compat.MATERIAL_WORKER.name)):
        material_search.correct_worker(tmp_path)


def test_correcting_the_built_worker_twice_changes_nothing(tmp_path) -> None:
    path = tmp_path / compat.MATERIAL_WORKER
    path.parent.mkdir(parents=True)
    path.write_text(compat.material_worker().read_text(encoding="utf-8"), encoding="utf-8")
    once = material_search.correct_worker(tmp_path).read_text(encoding="utf-8")
    assert material_search.correct_worker(tmp_path).read_text(encoding="utf-8") == once
    assert all(fix.right in once and fix.wrong not in once for fix in compat.WORKER_CORRECTIONS)


@pytest.mark.parametrize("reading", compat.WORKER_READS, ids=[what.split(" ")[1] for _, what in compat.WORKER_READS])
def test_a_worker_without_what_the_index_relies_on_stops_the_build(monkeypatch, tmp_path, reading) -> None:
    code, what = reading
    worker = tmp_path / "search.min.js"
    worker.write_text(compat.material_worker().read_text(encoding="utf-8").replace(code, "/* changed */"), encoding="utf-8")
    monkeypatch.setattr(compat, "material_worker", lambda: worker)
    with pytest.raises(compat.MaterialChanged, match=re.escape(what)):
        compat.check_material()
