"""What the pages' named values are made of: numbers written as LaTeX and Markdown (formatting.py), and the
sentences about computed numbers that check themselves, with margins larger than rounding (claims.py)."""
