# DWARF variables in C++ (a method's $this->member, a qualified name) and
# in a shared library function, named through .library(soname) and by its
# path, with its .return.
D=$LIVE/../debuginfo
$STAP -e '
probe process("'$D'/sample_cpp_O0").function("outer::inner::Widget::grow") {
  printf("grow by=%d size=%d\n", $by, $this->size)
}
probe process("'$D'/sample_cpp_O0").function("outer::inner::Widget::grow").return {
  printf("grow returned %d, size was %d\n", $return, @entry($this->size))
}' -c "sh -c 'exec $D/sample_cpp_O0 >/dev/null'" 2>&1
$STAP -e '
probe process("'$D'/sample_c_O0").library("libdisample.so.1").function("sample_lib_twice") {
  printf("twice value=%d\n", $value)
}
probe process("'$D'/libdisample.so.1").function("sample_lib_twice").return {
  printf("twice returned %d %s\n", $return, $$parms)
}' -c "sh -c 'exec $D/sample_c_O0 xyz >/dev/null'" 2>&1
