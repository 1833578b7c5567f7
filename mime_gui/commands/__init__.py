"""Headless subcommands of ``mime-gui``.

Each module offers ``add_arguments(parser, name)`` and ``run(args) -> int``.
"""
