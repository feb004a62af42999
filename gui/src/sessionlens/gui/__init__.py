"""SessionLens desktop app (PySide6 + qasync) over ``sessionlens.engine``."""
