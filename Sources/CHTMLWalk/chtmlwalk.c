#include <ctype.h>
#include <string.h>
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include "chtmlwalk.h"

static void walk(xmlNodePtr node, void *context, rb_html_element_cb callback) {
    for (; node != NULL; node = node->next) {
        if (node->type == XML_ELEMENT_NODE && node->name != NULL) {
            char tag[32];
            size_t i = 0;
            for (; node->name[i] != 0 && i < sizeof(tag) - 1; i++) tag[i] = (char)tolower(node->name[i]);
            tag[i] = 0;
            xmlChar *src = xmlGetProp(node, (const xmlChar *)"src");
            xmlChar *href = xmlGetProp(node, (const xmlChar *)"href");
            xmlChar *data = xmlGetProp(node, (const xmlChar *)"data");
            xmlChar *rel = xmlGetProp(node, (const xmlChar *)"rel");
            xmlChar *as = xmlGetProp(node, (const xmlChar *)"as");
            callback(context, tag, (const char *)src, (const char *)href, (const char *)data, (const char *)rel, (const char *)as);
            xmlFree(src);
            xmlFree(href);
            xmlFree(data);
            xmlFree(rel);
            xmlFree(as);
        }
        walk(node->children, context, callback);
    }
}

int rb_html_walk(const char *bytes, int length, void *context, rb_html_element_cb callback) {
    int options = HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET;
    htmlDocPtr doc = htmlReadMemory(bytes, length, NULL, "UTF-8", options);
    if (doc == NULL) return -1;
    walk(xmlDocGetRootElement(doc), context, callback);
    xmlFreeDoc(doc);
    return 0;
}
