// Command trawl runs the Trawl web data API and its admin commands.
package main

import (
	"os"

	"github.com/trawlhq/trawl/app"
)

func main() {
	os.Exit(app.CLI{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}.Main(os.Args[1:]))
}
