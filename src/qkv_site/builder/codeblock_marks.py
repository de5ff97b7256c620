"""The marks pytest-codeblocks reads in a page's Markdown, taken out before the page is rendered.

A mark such as ``<!--pytest.mark.skip(reason="…")-->`` or ``<!--pytest-codeblocks:expected-output-->``
tells the tests how to run the code block after it; it names test files and reasons meant for the
project, not for readers, so the served HTML carries none of them (the tests read the source Markdown).
"""

from __future__ import annotations

import re

# A mark on a line of its own (indented, as inside an admonition or a tab, or not), with its line ending.
MARK = re.compile(r"^[ \t]*<!--\s*pytest(?:\.mark\.|-codeblocks:).*?-->[ \t]*(?:\r?\n|\Z)", re.MULTILINE | re.DOTALL)


def without_codeblock_marks(markdown: str) -> str:
    """``markdown`` without the lines that hold a pytest-codeblocks mark.

    >>> without_codeblock_marks('text\\n\\n<!--pytest.mark.skip(reason="no")-->\\n```sh\\nls\\n```\\n')
    'text\\n\\n```sh\\nls\\n```\\n'
    >>> without_codeblock_marks('    <!--pytest-codeblocks:expected-output-->\\n    ```\\n    5\\n    ```')
    '    ```\\n    5\\n    ```'
    >>> without_codeblock_marks('<!-- a note for editors -->')
    '<!-- a note for editors -->'
    """
    return MARK.sub("", markdown)
