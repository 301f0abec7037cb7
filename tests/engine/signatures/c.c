/* A small dynamic string library. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SDS_MAX_PREALLOC (1024 * 1024)
#define SDS_TYPE_MASK 7
#define SDS_HDR(T, s) ((struct sdshdr##T *)((s) - (sizeof(struct sdshdr##T))))
#define sdsEncodedObject(objptr) \
    (objptr->encoding == OBJ_ENCODING_RAW || objptr->encoding == OBJ_ENCODING_EMBSTR)

typedef char *sds;

typedef int (*sdscmp_fn)(const sds a, const sds b);

struct sdshdr8 {
    unsigned char len;
    unsigned char alloc;
    char buf[];
};

enum sds_type { SDS_TYPE_5, SDS_TYPE_8 };

union sds_value {
    long long ll;
    double d;
};

static const char *sds_noinit = "SDS_NOINIT";

static inline size_t sdslen(const sds s) { return ((struct sdshdr8 *)(s - sizeof(struct sdshdr8)))->len; }

sds sdsnewlen(const void *init, size_t initlen);

/* Create a new sds string starting from a null terminated C string. */
sds sdsnew(const char *init) {
    size_t initlen = (init == NULL) ? 0 : strlen(init);
    return sdsnewlen(init, initlen);
}

static int
sdscmp(const sds s1,
       const sds s2)
{
    size_t l1 = sdslen(s1), l2 = sdslen(s2);
    int cmp = memcmp(s1, s2, l1 < l2 ? l1 : l2);
    if (cmp == 0) return l1 > l2 ? 1 : (l1 < l2 ? -1 : 0);
    return cmp;
}

sds sdscatprintf(sds s, const char *fmt, ...) { va_list ap; if (fmt == NULL) {
        return s;
    }
    va_start(ap, fmt);
    va_end(ap);
    return s;
}

int *sdssplitargs(const char *line, int *argc)
{
    int *vector = NULL;
    *argc = 0;
    return vector;
}
