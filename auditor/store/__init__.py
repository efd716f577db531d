"""Layer 4, store: what is kept on disk and how it stays trustworthy.

The SQLite store and its schema migrations (:mod:`.db`), the custody log that chains every row
(:mod:`.custody`), the dates kept for each document (:mod:`.dating`), deterministic gzip files
(:mod:`.gzfile`) and file-system helpers (:mod:`.files`). Imports only the layers below.
"""
