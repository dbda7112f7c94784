/* embedded.h - files built into ufnc: the support headers that generated
 * code includes, and the standard library's .ufn modules (tools/embed.c). */
#ifndef EMBEDDED_H
#define EMBEDDED_H

typedef struct EmbeddedFile {
    const char *name;   /* "ufn_math.h", "stdlib/ufnmath.ufn" */
    const char *text;
} EmbeddedFile;

extern const EmbeddedFile embedded_files[];   /* ends with a NULL name */

#endif
