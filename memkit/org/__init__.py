"""The organisation's memory: what each memory repository serves, published to one Milvus
collection (Milvus Lite embedded in a file by default, a Milvus cluster by URI) and searched
across teams. Git stays the truth: the published copy is derived and disposable.

`settings` (standard library only) says whether and where; `store` talks to Milvus through
its official client (pymilvus, imported only here and only when used); `publish` writes what
a repository serves at a commit; `search` answers a query for one person; `worker` runs the
queries of the warm engine in a thread of their own, with a timeout.
"""
