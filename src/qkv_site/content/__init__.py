"""What the pages' values are made of, the same for both languages: numbers written as LaTeX and Markdown
(formatting), sentences that check themselves (claims), the glossary's terms, the playground's presets
and the editor's notes gathered for the corrections page."""
