^n=/etc int=6374652f long=736f682f6374652f$
^bad long=0$
