^abcdefg\|xyabcde\|/etc/ho$
