package cmdrun

// pathSeparators are the characters that make a program name a path.
const pathSeparators = `/\:`
