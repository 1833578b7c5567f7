"""The main window's docks, one module each; every dock calls the Session and refreshes from its events."""
