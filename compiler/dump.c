/* dump.c - `ufnc -d types`: what the checker decided, for the next person
 * and for golden tests: every instance, its variables and its typed body. */
#include "ufnc.h"

static void dump_instance(FILE *out, const Instance *inst)
{
    const Func *f = inst->func;
    fprintf(out, "%s %s(", inst->sig ? (f->kind == FK_GUVECTORIZE ? "gufunc" : "ufunc") : "helper", f->name);
    for (int i = 0; i < inst->nargs; i++)
        fprintf(out, "%s%s", i ? ", " : "", type_name(inst->args[i]));
    fprintf(out, ") -> %s   [C: %s]\n", type_name(inst->ret), inst->cname);
    for (int i = 0; i < inst->nvars; i++) {
        const Var *v = inst->vars[i];
        fprintf(out, "  %s %s: %s\n", v->param ? "param" : v->temp ? "temp " : "local", v->name, type_name(v->type));
    }
    for (int i = 0; i < inst->body.len; i++)
        ast_dump(out, inst->body.items[i]);
    fputc('\n', out);
}

void dump_types(FILE *out, const Module *m)
{
    for (int i = 0; i < m->nhelpers; i++)
        dump_instance(out, m->helpers[i]);
    for (int i = 0; i < m->nkernels; i++)
        for (int k = 0; k < m->kernels[i]->ninstances; k++)
            dump_instance(out, m->kernels[i]->instances[k]);
}
