^PASS stress_printf$
