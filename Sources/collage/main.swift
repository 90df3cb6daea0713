// The command-line views of `collage`. Each command binds to the view model
// in CollageKit and prints what it says; no rule lives here.
CommandLineEntry.main()
