from consensus.cli.main import main

main()
