"""Reading text from images: the engine in worker processes, their pool, and the words."""
