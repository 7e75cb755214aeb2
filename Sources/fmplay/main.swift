import FMPlayCommands

await FMPlay.runFromCommandLine()
