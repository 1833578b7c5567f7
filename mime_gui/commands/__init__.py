"""Headless subcommands of ``mime-gui``: each module offers ``add_arguments(parser, name)`` and ``run(args)``."""
