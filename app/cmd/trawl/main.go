// Command trawl runs the Trawl web data API, its admin commands and its
// client commands (trawl api, trawl mcp).
package main

import (
	"os"

	"github.com/trawlhq/trawl/adapters/pdf"
	"github.com/trawlhq/trawl/app"
	"github.com/trawlhq/trawl/app/clientcmd"
)

func main() {
	pdf.ServeIfWorker() // started as a PDF worker: serves documents and exits
	os.Exit(app.CLI{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Client: clientcmd.Commands{}, MCP: clientcmd.MCP}.Main(os.Args[1:]))
}
