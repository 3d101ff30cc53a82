from ._commands import main

raise SystemExit(main())
