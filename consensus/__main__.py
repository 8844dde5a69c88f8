from consensus.cli import main

main()
