/* A program with its own getenv and setenv over a private table, as bash has: the tracer must
 * neither depend on them nor call them. Prints the address of its one marker block (4321). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char private_names[16][64];
static char private_values[16][256];
static int private_count;

char* getenv(const char* name) {
  for (int i = 0; i < private_count; ++i)
    if (strcmp(private_names[i], name) == 0) return private_values[i];
  return NULL;
}

int setenv(const char* name, const char* value, int overwrite) {
  (void)overwrite;
  if (private_count == 16) return -1;
  snprintf(private_names[private_count], sizeof private_names[0], "%s", name);
  snprintf(private_values[private_count], sizeof private_values[0], "%s", value);
  ++private_count;
  return 0;
}

int main(void) {
  void* volatile marker = malloc(4321);
  printf("marker=%p\n", marker);
  free(marker);
  return 0;
}
