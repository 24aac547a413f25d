// Catch's TEST_CASE defines a function: what its block declares is local.
TEST_CASE("parses", "[options]")
{
  struct testcase
  {
    int name;
  };
}

int CATCH_INTERNAL_CDECL main(int argc, char *argv[])
{
  return 0;
}
