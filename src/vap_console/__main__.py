from vap_console.cli import main

raise SystemExit(main())
