from dialbench.cli import main

main()
