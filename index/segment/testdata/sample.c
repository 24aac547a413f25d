#include <stdio.h>
#include "list.h"

#define MAX 16

/* A node in a list. */
typedef struct node {
    int value;
    struct node *next;
} node_t;

struct pair {
    int a;
    int b;
};

enum color { RED, GREEN };

/* Returns the length of a list. */
int length(const node_t *n) {
    int len = 0;
    while (n) {
        len++;
        n = n->next;
    }
    return len;
}

#ifdef DEBUG
static void print(const node_t *n) {
    printf("%d\n", n->value);
}
#endif  /* DEBUG */
