package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

// TestStart: two tests' databases are distinct and empty, on one server.
func TestStart(t *testing.T) {
	a, b := Start(t), Start(t)
	if a == b {
		t.Fatalf("two tests got one database: %s", a)
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE TABLE x (i int)"); err != nil {
		t.Fatal(err)
	}
	c2, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	var n int
	if err := c2.QueryRow(ctx, "SELECT count(*) FROM pg_class WHERE relname = 'x'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("second database sees the first's table: n=%d err=%v", n, err)
	}
}
