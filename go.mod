module github.com/gmp-kata/gmp-kata

go 1.26
