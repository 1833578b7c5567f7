from mime_gui.cli import main

raise SystemExit(main())
