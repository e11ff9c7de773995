/*
 * Internals of the value module (src/values): C types converted from
 * DWARF, values (a type plus bytes or a place in memory or a register),
 * the frame an expression is evaluated in, and the gdb-style printer.
 * The public face is ptd_values_* / ptd_value_* in include/ptdbg/ptdbg.h.
 */
#ifndef PTD_VALUES_INT_H
#define PTD_VALUES_INT_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#include "ptdbg/ptdbg.h"

struct ptd_symbols;

enum vt_kind {
	VT_VOID,
	VT_INT,   /* integers, including char and _Bool (see flags) */
	VT_FLOAT,
	VT_PTR,
	VT_ARRAY,
	VT_STRUCT,
	VT_UNION,
	VT_ENUM,
	VT_FUNC,
	VT_TYPEDEF,
	VT_QUAL,  /* const/volatile: name is the qualifier */
	VT_FLAGS, /* $eflags */
	VT_NODEBUG, /* a function or variable without debug information */
	VT_REF,   /* a C++ reference (&, or && with rvalue set) to target */
};

struct vtype;

/* A bit of a flags type ($eflags, $mxcsr): its number and name ("" for
 * a bit gdb lists without a name); a table ends at name NULL. */
struct ptd__flag {
	int bit;
	const char *name;
};

struct vt_member {
	char *name;          /* NULL for function parameters */
	struct vtype *type;
	uint64_t off;        /* byte offset */
	int bit_size;        /* 0: not a bit-field */
	int bit_off;         /* bit offset from off (little-endian) */
	int is_base;         /* a C++ base class's part: named "<Base>" */
	int is_virtual;      /* a virtual base: its offset is in the vtable, */
	int64_t vbase_slot;  /* this many bytes before where the vptr points */
};

struct vt_enumerator {
	char *name;
	int64_t val;
};

struct vtype {
	enum vt_kind kind;
	char *name;            /* "int", tag "point", typedef name, "const" */
	uint64_t size;
	int is_signed;
	int is_char;           /* char, signed char, unsigned char */
	int is_bool;
	int is_code;           /* void (*)() of $pc */
	struct vtype *target;  /* pointer, array element, typedef, qualifier, function result */
	int64_t count;         /* array elements, -1 when unknown */
	struct vt_member *members;
	int nmembers;
	int declared;          /* struct known only by declaration */
	int rvalue;            /* VT_REF: && */
	int internal_fn;       /* VT_VOID: gdb's internal function @name ($_streq) */
	int vector;            /* VT_ARRAY: gdb's vector ("__attribute__ ((vector_size(N)))"):
				* a vector register's part, siginfo's _pad */
	int cplus;             /* a C++ class, struct, union or enum: named without
				* the keyword, with its scope ("geo::Shape") */
	int prototyped, varargs;
	struct vt_enumerator *enums;
	int nenums;
	/* The first template arguments of a class of the C++ library (its
	 * name starts "std::"), by position: a type, or NULL for a value
	 * argument; for the library's pretty printers (stl.c), which find a
	 * container's node type as an argument of its allocator. */
	struct vtype *targs[2];
	int ntargs;
	/* a C++ class's member functions: name and linkage name, each
	 * ending in a NUL, an empty name after the last (NULL: none) */
	char *methods;
	size_t methods_len;
	struct vtype *next_alloc;
	int mark;              /* reachable from the history or a builtin */
	int bfloat16;          /* VT_FLOAT of 2 bytes: bfloat16, not IEEE half */
	const struct ptd__flag *flags; /* VT_FLAGS: its bits (static) */
};

/* A value: what print shows, what $N keeps. */
struct ptd_value {
	struct vtype *type;
	uint8_t *buf;        /* type size bytes once fetched; owned */
	int lazy;            /* lval_mem not read yet */
	/* LV_XREG: a register of xregs.c, @regno its id and @addr the
	 * first byte of it this value is */
	enum { LV_NONE, LV_MEM, LV_REG, LV_CONV, LV_XREG } lval;
	uint64_t addr;       /* LV_MEM */
	int regno;           /* LV_REG: DWARF register number; LV_CONV: the
			      * convenience variable's index in ptd_values.conv */
	int conv_part;       /* LV_CONV: a member of it, @addr bytes in */
	int bit_size, bit_off; /* a bit-field member (lval at addr) */
	int unavailable;     /* contents not known (the past) */
	int not_saved;       /* a call-clobbered register of an outer frame */
	int optimized_out;
	int synthetic;       /* a pointer the compiler left out, to a variable
			      * (DW_OP_implicit_pointer): gdb's <synthetic pointer> */
	/* A value assembled from pieces (DW_OP_piece) some of which are
	 * not known: per byte of buf, VAL_BYTE_OK, _OPTOUT or _UNAVAIL;
	 * NULL when every byte is known. */
	uint8_t *mask;
	/* synthetic: the variable it points into (frame.c's struct synth) */
	struct synth *synth;
	/* a C++ reference's referent: the value is what it refers to, and
	 * ref_type the reference's type, for printing ("(int &) @0x...: 3") */
	struct vtype *ref_type;
	uint64_t ref_addr;
	/* what whatis and ptype name instead of the value's type (NULL:
	 * that): the declared result of the xmethod that made it, as gdb's
	 * evaluation for the type gives it ("std::size_t" for a vector's
	 * size(), a long); not kept by copies (the history) */
	struct vtype *whatis_type;
};

enum { VAL_BYTE_OK, VAL_BYTE_OPTOUT, VAL_BYTE_UNAVAIL };

/* What @val's bytes [off, off+len) are: VAL_BYTE_OK when all are known,
 * else the state of the first that is not. */
int ptd__val_bytes_state(const struct ptd_value *val, uint64_t off, uint64_t len);
/* What reference @ref (of a VT_REF type) refers to, at @addr: a lazy
 * lvalue there that prints as the reference ("(int &) @0x...: 3"). */
struct ptd_value *ptd__val_referent(const struct ptd_value *ref, uint64_t addr);
/* *@ptr for a synthetic pointer: the bytes of the variable it stands
 * for, as a value of the pointer's target type.  0 or <0. */
int ptd__val_synth_deref(struct ptd_values *v, const struct ptd_value *ptr, struct ptd_value **out);

#define VAL_MAX_SIZE 65536 /* gdb's max-value-size */

/* DWARF register numbers of x86-64 the unwinder and locations use. */
#define NDREGS 17 /* rax..r15 and the return address (16) */
/* The registers every frame has the innermost one's values of: eflags,
 * the segment registers, fs_base, gs_base (by their DWARF numbers) and
 * orig_rax (DREG_ORIG_RAX, which has none), where they are in struct
 * user_regs_struct; the table ends at name NULL.  ptd__reg_write and
 * set_reg take these numbers too. */
#define DREG_ORIG_RAX 1000
struct ptd__other_reg {
	const char *name;
	int regno;
	size_t off;
};
extern const struct ptd__other_reg ptd__other_regs[];
/* The index in ptd__other_regs of register @name, or -1 */
int ptd__other_reg(const char *name);
/* their names, by DWARF number */
extern const char *const ptd__dreg_name[NDREGS];

struct vframe {
	int valid;
	uint64_t pc;           /* of this frame (return address for outer frames) */
	int level;
	uint64_t regs[NDREGS]; /* by DWARF number */
	uint32_t known;        /* bit per DWARF register */
	uint32_t not_saved;    /* known to be call-clobbered */
	uint64_t cfa;
	int cfa_known;
	uint64_t saved_at[NDREGS]; /* where the caller's registers were saved */
	uint32_t saved_mask;
};

struct type_cache_ent {
	void *dbg;
	Dwarf_Off off;
	struct vtype *t;
};

struct ptd_values {
	struct ptd_symbols *sym;
	long (*read)(void *ctx, uint64_t addr, void *buf, size_t n);
	long (*write)(void *ctx, uint64_t addr, const void *buf, size_t n);
	int (*set_reg)(void *ctx, int dwarf_regno, uint64_t v);
	int (*xstate)(void *ctx, void *buf, size_t *size);
	int (*set_xstate)(void *ctx, const void *buf, size_t size);
	void *ctx;
	uint64_t ctx_copy[8]; /* ptd_values_target.ctx_size bytes */

	int has_regs;      /* a thread is there */
	struct user_regs_struct uregs; /* the innermost frame's, as given */
	struct ptd_values_hooks hooks; /* the front end's (all NULL: none) */
	int past;          /* memory is the present memory, not the past's */
	int used_memory;   /* memory was read since ptd_values_bind */
	/* while a value prints: its bytes and its piece mask (NULL: all known) */
	const uint8_t *print_buf, *print_mask;
	uint64_t print_addr;  /* where print_buf's bytes are in memory */
	int print_in_mem;     /* print_addr is known (a value in memory) */
	int synth_depth; /* synthetic pointers being followed */
	int used_regs;     /* registers other than rip were used since then */
	int pc_only;       /* only rip of the innermost frame is known */
	int bad_op;        /* the DW_OP a location expression failed at */
	char warning[128]; /* gdb's warning of the last evaluation, or "" */
	int pretty;        /* print pretty: a struct's members a line each */
	uint64_t print_max; /* print elements: characters of a string, elements
			     * of an array shown (gdb's 200; UINT64_MAX: all) */
	int raw;           /* print/r: no pretty printers (while a value prints) */
	int summary;       /* a frame argument prints: a pretty printer's
			    * children as "{...}" (gdb's summary mode) */
	int frame_args_mode; /* print frame-arguments, for info frame (1: scalars) */
	/* The innermost block whose frame-local variable the last evaluation
	 * used (gdb's innermost_block): its pc range; blk_known 0 if none. */
	uint64_t blk_lo, blk_hi;
	int blk_known;
	/* While ptd_values_watch_chain() evaluates: the values fetched from
	 * memory on the way (gdb's value chain), in order; @chain_on off
	 * otherwise. */
	int chain_on, nchain;
	/* Evaluating for the type only (sizeof's operand,
	 * ptd_values_eval_type()): fetches give zeros without reading and
	 * assignments write nothing, as gdb's EVAL_AVOID_SIDE_EFFECTS. */
	int type_only;
	struct ptd__chain_val {
		uint64_t addr, size;
		int scalar; /* not a struct or an array */
	} chain[16], chain_failed; /* the value whose read failed (size 0: none) */
	struct vframe frame;     /* the selected frame */
	struct vframe frame0;    /* the innermost one */
	uint64_t inner_cfa;      /* the CFA of the frame called by the selected one */
	int inner_cfa_known;
	/* The selected frame is the one around the innermost @inl_callees
	 * inlined calls at its pc (ptd_values_select_inline; 0: the
	 * innermost, inlined or not). */
	int inl_callees;
	/* the registers the frame called by the selected one saved (where) */
	uint32_t inner_saved_mask;
	uint64_t inner_saved_at[NDREGS];
	/* The frame the CFI unwind reached at the last bind (walk_ok: it is
	 * the bound level's), from which ptd_values_bind_caller() goes on. */
	struct vframe walk;
	int walk_ok;

	struct ptd_value **hist;
	int nhist, hist_cap;
	/* Convenience variables ($x): made void when first named, as gdb's
	 * lookup_internalvar does, and given a value by an assignment. */
	struct conv_var {
		char *name;
		struct ptd_value *val; /* a snapshot, like a history value's */
	} *conv;
	int nconv;
	/* Values kept by ptd_values_keep() (slot NULL when released): their
	 * types survive the collection at each bind, like the history's. */
	struct ptd_value **kept;
	int nkept;

	struct vtype *types;     /* every type allocated, freed together */
	struct type_cache_ent *cache;
	size_t ncache, cache_cap;

	/* builtin types */
	struct vtype *t_int, *t_uint, *t_long, *t_ulong, *t_char, *t_double, *t_float,
		*t_void, *t_bool, *t_code_ptr, *t_data_ptr, *t_flags, *t_short, *t_ushort,
		*t_uchar, *t_llong, *t_ullong, *t_schar, *t_ldouble,
		*t_cxxbool, /* C++'s bool */
		*t_i8, *t_i16, *t_i32, *t_i64; /* registers' */
};

/* types.c */
struct vtype *ptd__vt_new(struct ptd_values *v, enum vt_kind k, const char *name, uint64_t size);
struct vtype *ptd__vt_ptr(struct ptd_values *v, struct vtype *to);
struct vtype *ptd__vt_array(struct ptd_values *v, struct vtype *elem, int64_t count);
struct vtype *ptd__vt_from_die(struct ptd_values *v, Dwarf_Die *die);
/* Whether C++ class @t (or a base) declares a member function @name. */
int ptd__vt_has_method(struct vtype *t, const char *name);
/* The linkage names ("" when not given) of the member functions of @t
 * (and its bases) named @name, up to @max in @linkage: how many. */
int ptd__vt_methods(struct vtype *t, const char *name, const char **linkage, int max);
/* Whether a member is the vtable pointer a C++ compiler adds ("_vptr.Shape"). */
int ptd__vt_is_vptr(const char *name);
/* A function type returning @ret, without parameters yet
 * (ptd__vt_func_param adds them in order). */
struct vtype *ptd__vt_func(struct ptd_values *v, struct vtype *ret, int prototyped);
void ptd__vt_func_param(struct vtype *f, struct vtype *param);
struct vtype *ptd__vt_strip(struct vtype *t);   /* typedefs and qualifiers */
/* Calls @fn on each compile unit of module @m's DWARF, with the module's
 * bias, until it returns nonzero; returns that, or 0 when none did (or
 * the module has no DWARF). */
int ptd__dw_each_cu(Dwfl_Module *m, int (*fn)(Dwarf_Die *cu, Dwarf_Addr bias, void *arg), void *arg);
uint64_t ptd__vt_size(struct vtype *t);
/* A DWARF base type's name as gdb prints it ("long int" is "long"). */
const char *ptd__base_type_name(const char *name);
void ptd__vt_builtins(struct ptd_values *v);
/* The name as gdb's whatis prints it (with @decl as declarator). */
char *ptd__vt_name(struct vtype *t, const char *decl);
/* ptype: one level of struct/union/enum expanded. */
char *ptd__vt_ptype(struct vtype *t);
/* ptype/o: a struct or union with gdb's offset, size and hole comments
 * (other types as ptd__vt_ptype). */
char *ptd__vt_ptype_offsets(struct vtype *t);
/* Finds a type by C name: "int", "unsigned long", "struct point", a typedef. */
struct vtype *ptd__vt_lookup(struct ptd_values *v, const char *name);
/* Frees the types no history value or builtin reaches (at each bind, so a
 * long session's evaluations do not pile types up). */
void ptd__vt_collect(struct ptd_values *v);

/* frame.c */
/* Whether expressions are C++ (the selected frame's unit, or main's). */
int ptd__lang_cplus(struct ptd_values *v);
struct ptd_value *ptd__val_new(struct vtype *t);
int ptd__val_fetch(struct ptd_values *v, struct ptd_value *val);
struct ptd_value *ptd__val_copy(const struct ptd_value *val);
int ptd__lookup_var(struct ptd_values *v, const char *name, struct ptd_value **out);
int ptd__reg_value(struct ptd_values *v, const char *name, struct ptd_value **out);
int ptd__mem_read(struct ptd_values *v, uint64_t addr, void *buf, size_t n);
int ptd__reg_write(struct ptd_values *v, int regno, uint64_t x);
/* A symbol found by name for info address: its DIE, the subprogram around
 * it (a local's, for DW_AT_frame_base), the module's bias, whether it is
 * a function, and the pc its location is described at. */
struct ptd__symfound {
	Dwarf_Die die, fn;
	int has_fn, func;
	uint64_t bias, pc;
};
int ptd__find_symbol(struct ptd_values *v, const char *name, struct ptd__symfound *out);

/* The first template type argument of the class whose member function
 * has its code at @pc (std::any's manager function: the type it
 * holds); NULL when the DWARF does not say. */
struct vtype *ptd__fn_class_targ(struct ptd_values *v, uint64_t pc);

/* xregs.c */
/* $xmm0, $st0, $mxcsr, $k1...: 1 and the register's value in *@out, 0
 * when @name is none of those registers, <0 on an error. */
int ptd__xreg_value(struct ptd_values *v, const char *name, struct ptd_value **out);
/* Writes @n bytes at @lhs (an LV_XREG value's place) into the register. */
int ptd__xreg_write(struct ptd_values *v, const struct ptd_value *lhs, const void *bytes,
		    size_t n);
/* gdb's flags of $eflags */
extern const struct ptd__flag ptd__eflags_flags[];

/* print.c */
struct sbuf {
	char *s;
	size_t len, cap;
	int oom;
};
void ptd__sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ptd__val_print(struct ptd_values *v, struct ptd_value *val, int fmt, int top, struct sbuf *b);
uint64_t ptd__bits(const uint8_t *p, uint64_t size, int is_signed);
/* 2-byte floats: IEEE half, or bfloat16 with @bf16 (its bits little-endian
 * at @p; from a double, rounded to nearest, as its 16 bits) */
double ptd__half_to_double(const uint8_t *p, int bf16);
unsigned ptd__half_from_double(double d, int bf16);
/* Prints the value of type @t whose bytes are at @p (@avail of them)
 * as gdb does at nesting @depth; 0, or <0 when memory it needed could
 * not be read (after printing what came before, as gdb does). */
int ptd__print_at(struct ptd_values *v, struct vtype *t, const uint8_t *p, uint64_t avail, int fmt,
		  int top, struct sbuf *b, int depth);
/* @n characters of @width bytes each (1, 2 or 4) as gdb's string
 * printer quotes them, repeats folded; @more: "..." after. */
void ptd__print_chars(struct sbuf *b, const uint8_t *s, size_t n, size_t width, int more);

/* stl.c */
/* Prints the object of class @s at @p as gdb 13's libstdc++ pretty
 * printer of its class does: 1 when it did, 0 when @s is not a class it
 * knows (or not laid out as it expects), <0 as ptd__print_at. */
int ptd__stl_print(struct ptd_values *v, struct vtype *s, const uint8_t *p, int fmt, struct sbuf *b,
		   int depth);
/* Whether @t is a class one of those printers is for (by its name). */
int ptd__stl_has_printer(struct vtype *t);
/* For the xmethods: member @name of class @t or of a base (its offset
 * and type); the base class or (with @members) member class whose name
 * starts with @prefix; where a container's node (named @node_prefix...)
 * keeps its value, @fallback when its type does not say.  0 or -1. */
int ptd__stl_member(struct vtype *t, const char *name, uint64_t *off, struct vtype **type);
int ptd__stl_find_class(struct vtype *t, const char *prefix, int members, uint64_t *off,
			struct vtype **out);
uint64_t ptd__stl_node_storage(struct vtype *impl, const char *node_prefix, uint64_t fallback);

/* convfn.c: gdb's convenience functions and computed variables */
/* Whether $@name is one of gdb's internal functions ($_streq, ...). */
int ptd__convfn_is(const char *name);
/* Calls internal function $@name with @args (not taken): 0 and *@out, or
 * <0 with gdb's error (a Python function's exception as gdb prints it). */
int ptd__convfn_call(struct ptd_values *v, const char *name, struct ptd_value **args, int nargs,
		     int cplus, struct ptd_value **out);
/* The computed convenience variables ($_siginfo, $_thread, $_gthread,
 * $_inferior): 1 and *@out, 0 when @name is none (or the front end says
 * nothing: an ordinary variable), <0 with gdb's error. */
int ptd__convvar(struct ptd_values *v, const char *name, struct ptd_value **out);

/* xmethods.c */
/* Whether gdb 13's libstdc++ has an xmethod @method ("size",
 * "operator[]", "operator*", "operator->") for class @t. */
int ptd__xm_has(struct vtype *t, const char *method);
/* Calls xmethod @method on @obj with @nargs arguments as gdb does: 1
 * and *@out the result, 0 when there is no such xmethod, <0 with gdb's
 * error. */
int ptd__xm_call(struct ptd_values *v, struct ptd_value *obj, const char *method,
		 struct ptd_value **args, int nargs, struct ptd_value **out);

#endif
