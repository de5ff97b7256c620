"""The build glue is one MkDocs plugin; what it uses of other packages' internals is checked at start-up."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest
import yaml
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from repository import ROOT

from qkv_site.builder import compat
from qkv_site.builder.plugin import SitePlugin


def test_the_plugin_is_registered_and_listed_after_the_plugins_it_works_with() -> None:
    (entry,) = [entry for entry in entry_points(group="mkdocs.plugins") if entry.name == "qkv-site"]
    assert entry.load() is SitePlugin
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    names = [next(iter(item)) if isinstance(item, dict) else item for item in config["plugins"]]
    assert names[-1] == "qkv-site" and {"markdown-exec", "mkdocs-jupyter", "i18n"} <= set(names)


def test_mkdocs_serve_keeps_one_instance_across_rebuilds() -> None:
    # MkDocs keeps a plugin instance across `mkdocs serve` rebuilds when its class defines on_startup.
    assert "on_startup" in vars(SitePlugin)


def test_the_internals_the_build_uses_are_there() -> None:
    compat.check()


def test_a_moved_internal_stops_the_build_naming_it() -> None:
    gone = compat.Internal("markdown-exec", "1.12.6", "markdown_exec._internal.formatters.python", "_no_such_runner", "a test")
    with pytest.raises(PluginError, match=r"_no_such_runner \(a test\), written for markdown-exec 1\.12\.6, installed \d"):
        compat.check((gone,))


def test_a_changed_copied_template_stops_the_build_naming_the_copy() -> None:
    original = compat.COPIED_TEMPLATES[0]
    changed = compat.CopiedTemplate(original.package, original.written_for, original.module, original.file, "0" * 64,
                                    original.copied_to, original.why)
    with pytest.raises(PluginError, match=r"sitemap\.xml is not the file overrides/sitemap\.xml was copied from"):
        compat.check(copies=(changed,))
    gone = compat.CopiedTemplate("mkdocs-material", compat.MATERIAL, "material", "templates/partials/no-such.html",
                                 original.sha256, "overrides/partials/no-such.html", "a test")
    assert not gone.holds()


def test_every_copied_template_and_its_copy_exist() -> None:
    for copy in compat.COPIED_TEMPLATES:
        assert copy.original().is_file() and (ROOT / copy.copied_to).is_file(), copy


def test_a_changed_mkdocs_jupyter_stops_the_build_naming_what_is_missing() -> None:
    class Jupyter:
        config = {"cache_dir": "x"}

        def should_include(self, file: object) -> bool:
            return True

    with pytest.raises(PluginError, match=r"_used_cache_paths.*on_files.*written for 0\.26\.3"):
        compat.check_jupyter(Jupyter())


def test_notebook_cells_print_one_stream_even_when_nbconvert_was_imported_first() -> None:
    import mkdocs_jupyter.plugin  # noqa: F401  (imports nbconvert, which makes ExecutePreprocessor)
    from nbconvert.preprocessors import ExecutePreprocessor

    from qkv_site.builder.notebooks import merge_printed_output

    merge_printed_output()
    assert ExecutePreprocessor().coalesce_streams is True


def test_the_chinese_nav_s_pages_are_kept_whole_for_the_translation_notice(tmp_path: Path) -> None:
    from mkdocs.structure.files import File
    from mkdocs.structure.nav import Navigation
    from mkdocs.structure.pages import Page

    from qkv_site.project import Project

    chinese = "---\ndescription: 描述。\n---\n\n# 甲 { #a }\n\n一。\n"
    plugin = SitePlugin()
    plugin.project = Project(config_file=tmp_path / "mkdocs.yml", docs_dir=tmp_path / "docs", results_dir=tmp_path,
                             src_dir=ROOT / "src", languages=("zh", "en"))

    def nav(lang: str, text: str) -> Navigation:
        file = File(f"{lang}/a.md", src_dir=None, dest_dir=str(tmp_path / "site"), use_directory_urls=True)
        file.content_string = text  # in memory: nothing is read from disk
        page = Page("A", file, MkDocsConfig())
        return Navigation([page], [page])

    plugin.on_nav(nav("zh", chinese), config=MkDocsConfig(), files=None)  # type: ignore[arg-type]
    assert plugin.originals == {"a.md": chinese}  # front matter included: the notice compares every section
    plugin.on_nav(nav("en", "# A { #a }\n"), config=MkDocsConfig(), files=None)  # type: ignore[arg-type]
    assert plugin.originals == {"a.md": chinese}  # the English pass keeps the Chinese texts
