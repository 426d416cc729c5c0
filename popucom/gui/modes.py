"""The GUI's modes, as `popucom gui --mode` takes them: who plays each side. Kept apart from Qt
so that the command line reads them without loading it."""

MODE_KEYS = ("human-black", "human-white", "human-human", "ai-ai")
