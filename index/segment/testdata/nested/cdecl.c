/* A calling convention between the type and the name. */
int CJSON_CDECL main(void)
{
    return 0;
}

static void UNITY_NOINLINE helper(int x)
{
    (void)x;
}

typedef struct GuardBytes
{
    size_t size;
} Guard;
