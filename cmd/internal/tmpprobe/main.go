package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

func main() {
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		c, err := pgx.Connect(ctx, "postgres:///dossier?host=/tmp/pgb&user=postgres")
		t1 := time.Now()
		var v string
		c.QueryRow(ctx, "select version()").Scan(&v)
		t2 := time.Now()
		c.QueryRow(ctx, "select version()").Scan(&v)
		fmt.Println("connect", t1.Sub(t0), "q1", t2.Sub(t1), "q2", time.Since(t2), err)
		c.Close(ctx)
	}
}
