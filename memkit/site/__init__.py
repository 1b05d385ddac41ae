"""`memkit site`: a static, self-contained site of the team's memory (DESIGN.md §13).

One module a concern: `collect` (what may be shown: the one decision, and reading every atom
through admission), `history` (git's log per file), `model` (where each atom belongs, links
both ways), `markdown` (atom text as HTML that cannot act), `html` (the frame and escaping),
`atompage`, `start`, `lists` (the pages), `graph` and `plots` (SVG drawn at build time),
`search` and `searchdocs` (the offline index read by `assets/search.js`), `build` (the whole
build, reusing unchanged pages).
"""
