// A tiny out-of-tree module for the kernel-DWARF tests (tests/guest/
// testmod/build.sh): built with -g against the guest kernel's headers,
// loaded in the guest.  Writing a number to
// /sys/module/stapkdw/parameters/trigger runs stapkdw_work(trigger), whose
// parameters, locals and lines the live cases probe.
#include <linux/module.h>
#include <linux/moduleparam.h>

static int stapkdw_calls;

struct stapkdw_pair {
  int left;
  long right;
};

static noinline int stapkdw_work(int value, const char *tag)
{
  struct stapkdw_pair pair = { value, value * 2L };
  int total = pair.left + (int)pair.right;  /* STAPKDW_TOTAL */

  stapkdw_calls++;
  if (tag[0] == 't')
    total += 1000;                          /* STAPKDW_BRANCH */
  barrier_data(&pair);                     /* STAPKDW_BARRIER */
  return total + stapkdw_calls;
}

static int stapkdw_set(const char *val, const struct kernel_param *kp)
{
  int v, rc = kstrtoint(val, 0, &v);

  if (rc)
    return rc;
  *(int *)kp->arg = stapkdw_work(v, kp->name);
  return 0;
}

static const struct kernel_param_ops stapkdw_ops = {
  .set = stapkdw_set,
  .get = param_get_int,
};
static int trigger;
module_param_cb(trigger, &stapkdw_ops, &trigger, 0644);

static int __init stapkdw_init(void) { return 0; }
static void __exit stapkdw_exit(void) {}
module_init(stapkdw_init);
module_exit(stapkdw_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stap-bpf kernel DWARF test module");
