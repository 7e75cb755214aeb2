import FMPlayCommands

await FMPlay.main()
