import ArgumentParser
import FMPlayCommands

await FMPlay.runFromCommandLine()
