^exec (/usr)?/bin/cat pid ok 1$
