"""The engine entry point of gonb_papermill: papermill loads its engines' entry points when it
is imported, and so imports this package (whose __init__ registers the Go translator).
The engine is papermill's own nbclient engine under the name "gonb"."""
from papermill.engines import NBClientEngine


class GonbEngine(NBClientEngine):
    """papermill's nbclient engine, registered as "gonb" (see the module doc)."""
