#include <stdio.h>

/* Largest buffer. */
#define BUF_MAX 4096
#define SQUARE(x) ((x) * (x))

static const int limit = 5;
int counter;
extern int verbose;
int parse(const char *s);

struct point {
    int x, y;
    char *name;
};

typedef struct {
    int width;
} size2;

enum color { RED, GREEN = 2 };
typedef enum { LOW, HIGH } level;

int parse(const char *s) {
    int local = 0;
    return local;
}
