#ifndef RADARBLOCK_CHTMLWALK_H
#define RADARBLOCK_CHTMLWALK_H
/* libxml2's HTML parser behind a plain C interface: its headers include ICU, which clashes with
   Foundation's ICU when imported into Swift, so Swift only sees this callback API. */

/* Called for every element, in document order, with its lowercase tag name and the attributes that
   name subresources (NULL when absent). */
typedef void (*rb_html_element_cb)(void *context, const char *tag, const char *src, const char *href,
                                   const char *data, const char *rel, const char *as);

/* Parses `length` bytes of HTML leniently (recover, no network) and walks its elements.
   Returns 0, or -1 when the input cannot be parsed at all. */
int rb_html_walk(const char *bytes, int length, void *context, rb_html_element_cb callback);

#endif
