"""The repository the tests run in: its paths, its languages, and the addresses the tests build the site for."""

from __future__ import annotations

from pathlib import Path

from qkv_site.project import Project, load_project

ROOT = Path(__file__).resolve().parents[2]  # tests/support/ → the checkout
DOCS = ROOT / "docs"
LANGUAGES = load_project(ROOT / "mkdocs.yml").languages  # the i18n plugin's, the default first
# The tests build the site as the deploy workflow does: for its published address, a sub-path as
# GitHub Pages serves a project site (/<repo>/), and with the repository it comes from. The served
# copy (``server``) is on 127.0.0.1 under the same sub-path; no page may name that address.
SITE_URL = "https://example.org/qkv-site/"
REPO_URL = "https://github.com/example/qkv-site"
REPO_NAME = "example/qkv-site"
# What a build reads from its environment (mkdocs.yml's !ENV), which a build without them must not see.
DEPLOY_ENV = {"SITE_URL": SITE_URL, "REPO_URL": REPO_URL, "REPO_NAME": REPO_NAME}


def the_project() -> Project:
    """The project's paths as the build sees them: loaded from the repository's mkdocs.yml (once per process)."""
    return load_project(ROOT / "mkdocs.yml")
