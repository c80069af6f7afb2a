prog;main;std::function<int  1
