/* leaky.c - the bundled example that `make demo` traces.
 *
 * A tiny "document cache" that forgets to free some of what it allocates (some strdup'd titles,
 * a log grown with realloc, a scratch buffer), and releases plenty of memory properly (the
 * documents, their calloc'd bodies), so the leak report has something to separate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct document {
  char* title;
  char* body;
  size_t length;
};

static struct document* document_open(const char* title, size_t length) {
  struct document* doc = malloc(sizeof *doc);
  doc->title = strdup(title);
  doc->body = calloc(length, 1);
  doc->length = length;
  return doc;
}

static void document_close(struct document* doc, int forget_title) {
  if (!forget_title) {
    free(doc->title); /* the leak: titles of some documents are kept */
  }
  free(doc->body);
  free(doc);
}

static char* grow_log(char* log, size_t size) {
  return realloc(log, size);
}

int main(void) {
  char* log = NULL;
  for (int i = 0; i < 20; ++i) {
    struct document* doc = document_open("report", 100 + 10 * i);
    log = grow_log(log, 64 * (i + 1));
    document_close(doc, i % 5 == 0);
  }
  void* scratch = malloc(4096); /* never freed */
  memset(scratch, 0, 4096);
  printf("log at %p\n", (void*)log); /* the log is never freed either */
  return 0;
}
