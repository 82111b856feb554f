^parms file=0xffff[0-9a-f]+ buf=0x[0-9a-f]+ count=0x[0-9a-f]+ pos=0xffff[0-9a-f]+$
^vars file=0xffff[0-9a-f]+ buf=0x[0-9a-f]+ count=0x[0-9a-f]+ pos=0xffff[0-9a-f]+$
^locals \[\]$
^count 512$
^path \{\.mnt=0xffff[0-9a-f]+, \.dentry=0xffff[0-9a-f]+\}$
^qstr \{<union>=\{\.\.\.\}, \.name="hostname"\}$
^qstr full \{<union>=\{<class>=\{\.hash=[0-9]+, \.len=8\}, \.hash_len=[0-9]+\}, \.name="hostname"\}$
^file \{<union>=\{\.\.\.\}, \.f_path=\{\.\.\.\}, \.f_inode=0xffff[0-9a-f]+, \.f_op=0xffff[0-9a-f]+, \.f_lock=\{\.\.\.\}, 
