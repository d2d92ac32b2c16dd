package main

import (
	"net/url"
	"runtime"
)

func runtimeGOMAXPROCS() int { return runtime.GOMAXPROCS(0) }

func replaceDB(admin, name string) string {
	u, err := url.Parse(admin)
	if err != nil {
		return admin
	}
	u.Path = "/" + name
	return u.String()
}
