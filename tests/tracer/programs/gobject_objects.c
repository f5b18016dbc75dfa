// GObject lifetimes for the gobject module: creates objects with each creation function, takes
// and drops references, sinks a floating reference, and leaks one object on purpose. Prints
// "name 0xobject [type]" for every call that the trace must show, in order (the type for the
// calls that add a reference), and "leaked 0xobject".
#include <glib-object.h>
#include <stdio.h>

#include "announce_files.h"

static void say(const char* name, const void* object) {
  printf("%s %p\n", name, object);
}

static void say_reference(const char* name, GObject* object) {
  printf("%s %p %s\n", name, (void*)object, G_OBJECT_TYPE_NAME(object));
}

int main(void) {
  if (announce_files() != 0) {
    return 4;
  }
  GObject* plain = g_object_new(G_TYPE_OBJECT, NULL);
  say_reference("g_object_new", plain);
  g_object_ref(plain);
  say_reference("g_object_ref", plain);
  g_object_unref(plain);
  say("g_object_unref", plain);
  g_object_unref(plain);  // the last reference: finalized
  say("g_object_unref", plain);

  GObject* floating = g_object_new(G_TYPE_INITIALLY_UNOWNED, NULL);
  say_reference("g_object_new", floating);
  g_object_ref_sink(floating);  // takes over the floating reference: no new reference
  g_object_ref_sink(floating);  // a real one
  say_reference("g_object_ref_sink", floating);
  g_object_unref(floating);
  say("g_object_unref", floating);
  const void* cleared = floating;
  (g_clear_object)(&floating);  // the function (the macro calls g_object_unref)
  say("g_clear_object", cleared);

  GObject* with_properties = g_object_new_with_properties(G_TYPE_OBJECT, 0, NULL, NULL);
  say_reference("g_object_new_with_properties", with_properties);
  g_object_unref(with_properties);
  say("g_object_unref", with_properties);

  GObject* leaked = g_object_new(G_TYPE_OBJECT, NULL);
  say_reference("g_object_new", leaked);
  printf("leaked %p\n", (void*)leaked);
  return 0;
}
