package client_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/trawlhq/trawl/client"
)

func Example() {
	c := client.New("http://127.0.0.1:8080", os.Getenv("TRAWL_TOKEN"))
	ctx := context.Background()
	page, err := c.Content(ctx, "https://example.com/blog/post")
	if client.IsStatus(err, 402) {
		log.Fatal("out of credits: top up with c.Purchase")
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(page.Metadata.Title)
	fmt.Println(page.Markdown)
}
